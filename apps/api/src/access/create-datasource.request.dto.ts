import { IsIn, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { DATASOURCE_DATATYPES } from '#mds/access';

const NAME = 'name is required: a string of at most 200 characters';

/** Legacy `POST /api/datasources/` `{name, integration, datatype}`. */
export class CreateDatasourceRequest {
  @IsString({ message: NAME })
  @Matches(/\S/, { message: NAME })
  @MaxLength(200, { message: NAME })
  name!: string;

  @IsString({ message: 'integration is required: the id of an integration' })
  @IsNotEmpty({ message: 'integration is required: the id of an integration' })
  integration!: string;

  @IsIn(DATASOURCE_DATATYPES, { message: `datatype must be one of ${DATASOURCE_DATATYPES.join(', ')}` })
  datatype!: string;
}
